// experiment: does L2's rdtsc equal L1's rdtsc + KVM's tsc-offset under TCG SVM?
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/vm_sockets.h>
#include <x86intrin.h>
static uint64_t mono(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000ull+t.tv_nsec;}
static long long rdoff(const char *p){FILE*f=fopen(p,"r");long long v=0;if(!f)return 0x7fffffffffffffffLL;if(fscanf(f,"%lld",&v)!=1)v=0;fclose(f);return v;}
int main(int argc,char**argv){
	struct sockaddr_vm a;memset(&a,0,sizeof a);a.svm_family=AF_VSOCK;a.svm_port=7001;
	if(argc>1&&!strcmp(argv[1],"guest")){
		int s=socket(AF_VSOCK,SOCK_STREAM,0);a.svm_cid=VMADDR_CID_ANY;
		if(bind(s,(void*)&a,sizeof a)||listen(s,1)){perror("bind");return 1;}
		int c=accept(s,0,0);char b;
		while(read(c,&b,1)==1){uint64_t v[3];v[0]=mono();v[1]=__rdtsc();v[2]=mono();if(write(c,v,sizeof v)!=sizeof v)break;}
		return 0;
	}
	const char*offp=argv[2];
	int s;
	for(int i=0;;i++){s=socket(AF_VSOCK,SOCK_STREAM,0);a.svm_cid=3;if(!connect(s,(void*)&a,sizeof a))break;close(s);if(i>120){fprintf(stderr,"no guest\n");return 1;}sleep(1);}
	for(int i=0;i<30;i++){
		long long off=rdoff(offp);uint64_t m1=mono();uint64_t t1=__rdtsc();char b=1;uint64_t v[3];
		if(write(s,&b,1)!=1||read(s,v,sizeof v)!=sizeof v)return 1;
		uint64_t t3=__rdtsc();uint64_t m3=mono();long long off2=rdoff(offp);
		long long gh=(long long)v[1]-off;
		printf("off %lld off2 %lld t1 %llu g %llu t3 %llu  g-off-t1 %lld t3-(g-off) %lld rtt %llu | hm %llu %llu gm %llu %llu\n",off,off2,(unsigned long long)t1,(unsigned long long)v[1],(unsigned long long)t3,gh-(long long)t1,(long long)t3-gh,(unsigned long long)(t3-t1),(unsigned long long)m1,(unsigned long long)m3,(unsigned long long)v[0],(unsigned long long)v[2]);
		usleep(100000);
	}
	return 0;
}
